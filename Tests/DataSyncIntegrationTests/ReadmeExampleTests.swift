import DataSync
import DataSyncTestSupport
import Testing

/// The README's example, run as written (only the keys and origin point at the emulator), so the
/// README cannot drift from the API.
@Suite struct ReadmeExampleTests {
    struct Profile: JSONCodable {
        var displayName: String
        var team: String
    }

    @Test func readmeExampleRuns() async throws {
        try await withFixture(.curl) { fixture in
            let pubnub = fixture.pubnub
            let ada = try await pubnub.dataSync.createUser(
                classVersion: 1, id: "ada", status: "active", payload: Profile(displayName: "Ada", team: "core"))
            let updated = try await pubnub.dataSync.updateUser(
                id: "ada", operations: [.replace(path: "/payload/team", value: "web")], ifMatchesEtag: ada.eTag)
            var teams: [String] = []
            for try await user in pubnub.dataSync.users(filterFast: #"status == "active""#) {
                let profile = try user.payload?.decode(Profile.self)
                teams.append(profile?.team ?? "-")
                #expect(updated.eTag == user.eTag)
            }
            #expect(teams == ["web"])
        }
    }
}
