import Auth
import DataSyncAuth
import DataSyncRealtime
import Realtime

// Both packages' types, side by side in one module.
let standIns = [AuthClient().name, RealtimeClient().name]
let configuration = PubNubConfiguration(
    publishKey: "demo", subscribeKey: "demo", userId: "alias-app", origin: "127.0.0.1:1", useSecureConnections: false)
let pubnub = PubNub(configuration: configuration)
let subscription = pubnub.channel("room").subscription()
let token = try? AccessToken(parsing: "not-a-token")
print("\(standIns.joined(separator: ", ")); PubNub \(PubNub.sdkVersion), subscription for \(subscription.channels)")
print(token == nil ? "module aliases work" : "unexpected: a garbage token parsed")
