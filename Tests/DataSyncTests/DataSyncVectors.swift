// Request/response examples for users and channels, transcribed from the shared DataSync
// vectors file (spec/datasync-vectors.json, indices kept). Each vector's Swift call lives in
// DataSyncVectorTests.swift.

import JSONCore

/// One recorded example: the request the SDK must send and the answer the service gave.
struct DataSyncVector: Sendable {
    var index: Int
    var operation: String
    var subscribeKey: String
    var method: String
    var path: String
    /// The operation's own query parameters (without `uuid`, `pnsdk`, `auth`).
    var query: [String: String]
    var headers: [String: String]
    /// The exact body as JSON text, or nil for none.
    var body: String?
    /// The vector's inputs, as JSON text.
    var inputs: String
    var responseStatus: Int
    /// The response body as JSON text (empty for an empty body).
    var responseBody: String

    func inputValue() throws -> JSONValue { try JSONValue(parsing: inputs) }
}

enum DataSyncVectors {
    static let all: [Int: DataSyncVector] = [
        0: DataSyncVector(
            index: 0, operation: "common.queryParameters", subscribeKey: "mySubKey", method: "GET",
            path: "/v1/datasync/subkeys/mySubKey/users/user-99961",
            query: [:],
            headers: [:],
            body: nil,
            inputs:
                #"{"config":{"subscribeKey":"mySubKey","uuid":"myUUID","authKey":"myAuthKey","useRequestId":false},"call":"getUser({id:'user-99961'})"}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":{"id":"user-99961","createdAt":"2026-09-07T07:34:55.265874Z","updatedAt":"2026-09-07T07:34:55.265874Z","eTag":"y2j3ve","expiresAt":"2026-10-08T00:00:00Z","entityClass":"User","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"firstName":"Alice","lastName":"Verma","email":"alice.verma@acme.test"}}}"#
        ),
        1: DataSyncVector(
            index: 1, operation: "user.create", subscribeKey: "mySubKey", method: "POST",
            path: "/v1/datasync/subkeys/mySubKey/users",
            query: [:],
            headers: ["Content-Type": "application/vnd.pubnub.objects.user+json;version=1"],
            body:
                #"{"data":{"id":"user-90786","entityClassVersion":1,"status":"active","payload":{"firstName":"Amelia","lastName":"Acharya","email":"amelia.acharya@acme.test","department":"Engineering","level":"L3","location":"Pune","isActive":true}}}"#,
            inputs:
                #"{"id":"user-90786","data":{"classVersion":1,"status":"active","payload":{"firstName":"Amelia","lastName":"Acharya","email":"amelia.acharya@acme.test","department":"Engineering","level":"L3","location":"Pune","isActive":true}}}"#,
            responseStatus: 201,
            responseBody:
                #"{"data":{"id":"user-90786","createdAt":"2026-09-07T07:34:55.265874Z","updatedAt":"2026-09-07T07:34:55.265874Z","eTag":"y2j19m","expiresAt":"2026-10-08T00:00:00Z","entityClass":"User","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"firstName":"Amelia","lastName":"Acharya","email":"amelia.acharya@acme.test","department":"Engineering","level":"L3","location":"Pune","isActive":true}}}"#
        ),
        2: DataSyncVector(
            index: 2, operation: "user.create", subscribeKey: "mySubKey", method: "POST",
            path: "/v1/datasync/subkeys/mySubKey/users",
            query: [:],
            headers: ["Content-Type": "application/vnd.pubnub.objects.user+json;version=1"],
            body:
                #"{"data":{"id":"user-40021","entityClass":"Employee","entityClassVersion":1,"entityClassLevel":"SubKey","payload":{"firstName":"Alice","lastName":"Verma","email":"alice.verma@acme.test"}}}"#,
            inputs:
                #"{"id":"user-40021","class":"Employee","classLevel":"SubKey","data":{"classVersion":1,"payload":{"firstName":"Alice","lastName":"Verma","email":"alice.verma@acme.test"}}}"#,
            responseStatus: 201,
            responseBody:
                #"{"data":{"id":"user-40021","createdAt":"2026-09-07T07:34:55.265874Z","updatedAt":"2026-09-07T07:34:55.265874Z","eTag":"y2j2aa","expiresAt":"2026-10-08T00:00:00Z","entityClass":"Employee","entityClassVersion":1,"entityClassLevel":"SubKey","status":"active","payload":{"firstName":"Alice","lastName":"Verma","email":"alice.verma@acme.test"}}}"#
        ),
        3: DataSyncVector(
            index: 3, operation: "user.get", subscribeKey: "mySubKey", method: "GET",
            path: "/v1/datasync/subkeys/mySubKey/users/user-99961",
            query: [:],
            headers: [:],
            body: nil,
            inputs: #"{"id":"user-99961"}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":{"id":"user-99961","createdAt":"2026-09-07T07:34:55.265874Z","updatedAt":"2026-09-07T07:34:55.265874Z","eTag":"y2j3ve","expiresAt":"2026-10-08T00:00:00Z","entityClass":"User","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"firstName":"Alice","lastName":"Verma","email":"alice.verma@acme.test","department":"Engineering"}}}"#
        ),
        4: DataSyncVector(
            index: 4, operation: "user.get", subscribeKey: "mySubKey", method: "GET",
            path: "/v1/datasync/subkeys/mySubKey/users/user-90051",
            query: [:],
            headers: [:],
            body: nil,
            inputs: #"{"id":"user-90051"}"#,
            responseStatus: 404,
            responseBody: #"{"errors":[{"errorCode":"DS-0100","message":"Entity not found: user-90051"}]}"#),
        5: DataSyncVector(
            index: 5, operation: "user.create", subscribeKey: "mySubKey", method: "POST",
            path: "/v1/datasync/subkeys/mySubKey/users",
            query: [:],
            headers: ["Content-Type": "application/vnd.pubnub.objects.user+json;version=1"],
            body:
                #"{"data":{"id":"user-51687","entityClassVersion":1,"status":"active","payload":{"firstName":"Alice","lastName":"Verma","email":"alice.verma@acme.test"}}}"#,
            inputs:
                #"{"id":"user-51687","data":{"classVersion":1,"status":"active","payload":{"firstName":"Alice","lastName":"Verma","email":"alice.verma@acme.test"}}}"#,
            responseStatus: 403,
            responseBody: #"{"error":true,"status":403,"service":"Access Manager","message":"Forbidden"}"#),
        6: DataSyncVector(
            index: 6, operation: "user.update", subscribeKey: "mySubKey", method: "PATCH",
            path: "/v1/datasync/subkeys/mySubKey/users/user-51687",
            query: [:],
            headers: ["Content-Type": "application/json-patch+json"],
            body:
                #"[{"op":"add","path":"/payload/phone","value":"+15550100"},{"op":"replace","path":"/payload/email","value":"updated@acme.test"},{"op":"remove","path":"/payload/isActive"}]"#,
            inputs:
                #"{"id":"user-51687","add":{"/payload/phone":"+15550100"},"replace":{"/payload/email":"updated@acme.test"},"remove":["/payload/isActive"]}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":{"id":"user-51687","createdAt":"2026-09-07T07:34:55.265874Z","updatedAt":"2026-09-07T07:34:59.111222Z","eTag":"y2j6cd","expiresAt":"2026-10-08T00:00:00Z","entityClass":"User","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"firstName":"Alice","lastName":"Verma","email":"updated@acme.test","phone":"+15550100"}}}"#
        ),
        7: DataSyncVector(
            index: 7, operation: "user.update", subscribeKey: "mySubKey", method: "PATCH",
            path: "/v1/datasync/subkeys/mySubKey/users/user-81905",
            query: [:],
            headers: ["Content-Type": "application/json-patch+json"],
            body:
                #"[{"op":"move","from":"/payload/lastName","path":"/payload/surname"},{"op":"copy","from":"/payload/firstName","path":"/payload/nickname"},{"op":"test","path":"/payload/email","value":"alice.verma@acme.test"}]"#,
            inputs:
                #"{"id":"user-81905","copy":[{"from":"/payload/firstName","path":"/payload/nickname"}],"move":[{"from":"/payload/lastName","path":"/payload/surname"}],"test":{"/payload/email":"alice.verma@acme.test"}}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":{"id":"user-81905","createdAt":"2026-09-07T07:34:55.265874Z","updatedAt":"2026-09-07T07:35:00.865828Z","eTag":"y2j88q","expiresAt":"2026-10-08T00:00:00Z","entityClass":"User","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"firstName":"Alice","email":"alice.verma@acme.test","surname":"Verma","nickname":"Alice"}}}"#
        ),
        8: DataSyncVector(
            index: 8, operation: "user.update", subscribeKey: "mySubKey", method: "PATCH",
            path: "/v1/datasync/subkeys/mySubKey/users/user-81905",
            query: [:],
            headers: ["Content-Type": "application/json-patch+json", "If-Match": "y2j77p"],
            body: #"[{"op":"replace","path":"/payload/firstName","value":"Amelia"}]"#,
            inputs: #"{"id":"user-81905","ifMatchesEtag":"y2j77p","replace":{"/payload/firstName":"Amelia"}}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":{"id":"user-81905","createdAt":"2026-09-07T07:34:55.265874Z","updatedAt":"2026-09-07T07:34:55.265874Z","eTag":"y2j99r","expiresAt":"2026-10-08T00:00:00Z","entityClass":"User","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"firstName":"Alice","lastName":"Verma","email":"alice.verma@acme.test"}}}"#
        ),
        9: DataSyncVector(
            index: 9, operation: "user.set", subscribeKey: "mySubKey", method: "PUT",
            path: "/v1/datasync/subkeys/mySubKey/users/user-79435",
            query: [:],
            headers: ["Content-Type": "application/vnd.pubnub.objects.user+json;version=1"],
            body:
                #"{"data":{"entityClassVersion":1,"status":"inactive","payload":{"firstName":"Bianca","lastName":"Rao","email":"bianca.rao@acme.test","department":"Sales"}}}"#,
            inputs:
                #"{"id":"user-79435","data":{"classVersion":1,"status":"inactive","payload":{"firstName":"Bianca","lastName":"Rao","email":"bianca.rao@acme.test","department":"Sales"}}}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":{"id":"user-79435","createdAt":"2026-09-07T07:34:55.265874Z","updatedAt":"2026-09-07T07:35:03.328618Z","eTag":"y2j9i1","expiresAt":"2026-10-08T00:00:00Z","entityClass":"User","entityClassVersion":1,"entityClassLevel":"Global","status":"inactive","payload":{"firstName":"Bianca","lastName":"Rao","email":"bianca.rao@acme.test","department":"Sales"}}}"#
        ),
        10: DataSyncVector(
            index: 10, operation: "user.remove", subscribeKey: "mySubKey", method: "DELETE",
            path: "/v1/datasync/subkeys/mySubKey/users/user-90051",
            query: [:],
            headers: [:],
            body: nil,
            inputs: #"{"id":"user-90051"}"#,
            responseStatus: 200,
            responseBody: #""#),
        11: DataSyncVector(
            index: 11, operation: "user.getAll", subscribeKey: "mySubKey", method: "GET",
            path: "/v1/datasync/subkeys/mySubKey/users",
            query: ["limit": "10"],
            headers: [:],
            body: nil,
            inputs: #"{"limit":10}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":[{"id":"u.1","createdAt":"2026-08-12T17:10:27.831727Z","updatedAt":"2026-08-12T17:10:27.831727Z","eTag":"3w5e1123mfkn5","expiresAt":"2026-09-12T00:00:00Z","entityClass":"User","entityClassVersion":1,"entityClassLevel":"Global","status":"some-default-status","payload":{"name":"Regular User"}},{"id":"u.10","createdAt":"2026-08-13T03:13:51.834961Z","updatedAt":"2026-08-13T03:13:51.834961Z","eTag":"3w5e11247zjtq","expiresAt":"2026-09-13T00:00:00Z","entityClass":"User","entityClassVersion":1,"entityClassLevel":"Global","status":"some-default-status","payload":{"name":"Regular User"}}],"meta":{"has_next":true,"next_cursor":"eyJpIjoiMzQ5MSIsInN2IjpbXX0","limit":10}}"#
        ),
        12: DataSyncVector(
            index: 12, operation: "user.getAll", subscribeKey: "mySubKey", method: "GET",
            path: "/v1/datasync/subkeys/mySubKey/users",
            query: ["limit": "20"],
            headers: [:],
            body: nil,
            inputs: #"{}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":[{"id":"u.1","createdAt":"2026-08-12T17:10:27.831727Z","updatedAt":"2026-08-12T17:10:27.831727Z","eTag":"3w5e1123mfkn5","expiresAt":"2026-09-12T00:00:00Z","entityClass":"User","entityClassVersion":1,"entityClassLevel":"Global","status":"some-default-status","payload":{"name":"Regular User"}},{"id":"u.10","createdAt":"2026-08-13T03:13:51.834961Z","updatedAt":"2026-08-13T03:13:51.834961Z","eTag":"3w5e11247zjtq","expiresAt":"2026-09-13T00:00:00Z","entityClass":"User","entityClassVersion":1,"entityClassLevel":"Global","status":"some-default-status","payload":{"name":"Regular User"}}],"meta":{"has_next":false}}"#
        ),
        13: DataSyncVector(
            index: 13, operation: "user.getAll", subscribeKey: "mySubKey", method: "GET",
            path: "/v1/datasync/subkeys/mySubKey/users",
            query: ["cursor": "eyJpIjoiMzQ5MSIsInN2IjpbXX0", "limit": "2"],
            headers: [:],
            body: nil,
            inputs: #"{"limit":2,"cursor":"eyJpIjoiMzQ5MSIsInN2IjpbXX0"}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":[{"id":"u.2","createdAt":"2026-08-13T03:15:09.537229Z","updatedAt":"2026-08-13T03:15:09.537229Z","eTag":"3w5e11248180n","expiresAt":"2026-09-13T00:00:00Z","entityClass":"User","entityClassVersion":1,"entityClassLevel":"Global","status":"some-default-status","payload":{"name":"Regular User"}},{"id":"u.smoke381469","createdAt":"2026-08-13T03:39:44.563570Z","updatedAt":"2026-08-13T03:39:44.563570Z","eTag":"3w5e11248wu4l","expiresAt":"2026-09-13T00:00:00Z","entityClass":"User","entityClassVersion":1,"entityClassLevel":"Global","status":"some-default-status","payload":{"name":"Smoke User"}}],"meta":{"has_next":true,"next_cursor":"eyJpIjoiMzQ5MyIsInN2IjpbXX0","limit":2}}"#
        ),
        14: DataSyncVector(
            index: 14, operation: "user.getAll", subscribeKey: "mySubKey", method: "GET",
            path: "/v1/datasync/subkeys/mySubKey/users",
            query: ["filter": "department == 'Engineering'", "limit": "50"],
            headers: [:],
            body: nil,
            inputs: #"{"filter":"department == 'Engineering'","limit":50}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":[{"id":"user-31445","createdAt":"2026-09-07T07:34:55.265874Z","updatedAt":"2026-09-07T07:34:55.265874Z","eTag":"y2ja11","expiresAt":"2026-10-08T00:00:00Z","entityClass":"User","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"firstName":"Alice","lastName":"Verma","email":"alice.verma@acme.test","department":"Engineering","isActive":true}},{"id":"user-88210","createdAt":"2026-09-07T07:34:55.265874Z","updatedAt":"2026-09-07T07:34:55.265874Z","eTag":"y2jb22","expiresAt":"2026-10-08T00:00:00Z","entityClass":"User","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"firstName":"Alice","lastName":"Verma","email":"alice.verma@acme.test","department":"Engineering","isActive":true}}],"meta":{"has_next":false,"limit":50}}"#
        ),
        15: DataSyncVector(
            index: 15, operation: "user.getAll", subscribeKey: "mySubKey", method: "GET",
            path: "/v1/datasync/subkeys/mySubKey/users",
            query: [
                "filter": "(department == 'Engineering') AND (location == 'Pune')", "filter_fast": "isActive == true",
                "limit": "50",
            ],
            headers: [:],
            body: nil,
            inputs:
                #"{"filter":"(department == 'Engineering') AND (location == 'Pune')","filterFast":"isActive == true","limit":50}"#,
            responseStatus: 200,
            responseBody: #"{"data":[],"meta":{"has_next":false,"limit":50}}"#),
        16: DataSyncVector(
            index: 16, operation: "user.getAll", subscribeKey: "mySubKey", method: "GET",
            path: "/v1/datasync/subkeys/mySubKey/users",
            query: ["limit": "50", "sort": "createdAt:desc"],
            headers: [:],
            body: nil,
            inputs: #"{"sort":{"createdAt":"desc"},"limit":50}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":[{"id":"user-77301","createdAt":"2026-09-07T07:35:10.101010Z","updatedAt":"2026-09-07T07:34:55.265874Z","eTag":"y2jc33","expiresAt":"2026-10-08T00:00:00Z","entityClass":"User","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"firstName":"Alice","lastName":"Verma","email":"alice.verma@acme.test"}},{"id":"user-77302","createdAt":"2026-09-07T07:35:09.090909Z","updatedAt":"2026-09-07T07:34:55.265874Z","eTag":"y2jc34","expiresAt":"2026-10-08T00:00:00Z","entityClass":"User","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"firstName":"Alice","lastName":"Verma","email":"alice.verma@acme.test"}}],"meta":{"has_next":false,"limit":50}}"#
        ),
        17: DataSyncVector(
            index: 17, operation: "user.getAll", subscribeKey: "mySubKey", method: "GET",
            path: "/v1/datasync/subkeys/mySubKey/users",
            query: ["entity_class_version": "1", "limit": "50", "sort": "-createdAt"],
            headers: [:],
            body: nil,
            inputs: #"{"sort":"-createdAt","entityClassVersion":1,"limit":50}"#,
            responseStatus: 200,
            responseBody: #"{"data":[],"meta":{"has_next":false,"limit":50}}"#),
        18: DataSyncVector(
            index: 18, operation: "user.getAll", subscribeKey: "mySubKey", method: "GET",
            path: "/v1/datasync/subkeys/mySubKey/users",
            query: [
                "entity_class": "User", "entity_class_level": "Global", "entity_class_version": "1", "limit": "50",
            ],
            headers: [:],
            body: nil,
            inputs: #"{"class":"User","classVersion":1,"classLevel":"Global","limit":50}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":[{"id":"u.1","createdAt":"2026-08-12T17:10:27.831727Z","updatedAt":"2026-08-12T17:10:27.831727Z","eTag":"3w5e1123mfkn5","expiresAt":"2026-09-12T00:00:00Z","entityClass":"User","entityClassVersion":1,"entityClassLevel":"Global","status":"some-default-status","payload":{"name":"Regular User"}},{"id":"u.10","createdAt":"2026-08-13T03:13:51.834961Z","updatedAt":"2026-08-13T03:13:51.834961Z","eTag":"3w5e11247zjtq","expiresAt":"2026-09-13T00:00:00Z","entityClass":"User","entityClassVersion":1,"entityClassLevel":"Global","status":"some-default-status","payload":{"name":"Regular User"}}],"meta":{"has_next":false,"limit":50}}"#
        ),
        19: DataSyncVector(
            index: 19, operation: "user.getAll", subscribeKey: "mySubscribeKey", method: "GET",
            path: "/v1/datasync/subkeys/mySubscribeKey/users",
            query: ["sort": "name,updated:desc"],
            headers: [:],
            body: nil,
            inputs: #"{"sort":[{"property":"name"},{"property":"updated","ascending":false}]}"#,
            responseStatus: 200,
            responseBody: #"{"status":200,"data":[]}"#),
        20: DataSyncVector(
            index: 20, operation: "user.getAll", subscribeKey: "mySubscribeKey", method: "GET",
            path: "/v1/datasync/subkeys/mySubscribeKey/users",
            query: ["filter": "name == \"50%\"", "filter_fast": "name == \"a+b\""],
            headers: [:],
            body: nil,
            inputs: #"{"filterFast":"name == \"a+b\"","filter":"name == \"50%\""}"#,
            responseStatus: 200,
            responseBody: #"{"status":200,"data":[]}"#),
        21: DataSyncVector(
            index: 21, operation: "channel.create", subscribeKey: "test", method: "POST",
            path: "/v1/datasync/subkeys/test/channels",
            query: [:],
            headers: ["Content-Type": "application/vnd.pubnub.objects.channel+json;version=1"],
            body:
                #"{"data":{"id":"JSchannel-56738","entityClassVersion":1,"status":"active","payload":{"name":"engineering","description":"engineering","kind":"public","department":"Engineering"}}}"#,
            inputs:
                #"{"id":"JSchannel-56738","classVersion":1,"status":"active","payload":{"name":"engineering","description":"engineering","kind":"public","department":"Engineering"}}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":{"id":"JSchannel-56738","createdAt":"2026-09-07T06:57:09.375184Z","updatedAt":"2026-09-07T06:57:09.375184Z","eTag":"y16jaw","expiresAt":"2026-10-08T00:00:00Z","entityClass":"Channel","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"name":"engineering","description":"engineering","kind":"public","department":"Engineering"}}}"#
        ),
        22: DataSyncVector(
            index: 22, operation: "channel.create", subscribeKey: "test", method: "POST",
            path: "/v1/datasync/subkeys/test/channels",
            query: [:],
            headers: ["Content-Type": "application/vnd.pubnub.objects.channel+json;version=1"],
            body:
                #"{"data":{"id":"channel-1","entityClass":"PrivateChannel","entityClassVersion":1,"entityClassLevel":"SubKey","payload":{"firstName":"Alice"}}}"#,
            inputs:
                #"{"id":"channel-1","className":"PrivateChannel","classLevel":"SubKey","classVersion":1,"payload":{"firstName":"Alice"}}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":{"id":"channel-1","createdAt":"2026-09-07T06:57:09.375184Z","updatedAt":"2026-09-07T06:57:09.375184Z","eTag":"y16jaw","expiresAt":"2026-10-08T00:00:00Z","entityClass":"PrivateChannel","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"kind":"public","name":"engineering","description":"engineering"}}}"#
        ),
        23: DataSyncVector(
            index: 23, operation: "channel.create", subscribeKey: "test", method: "POST",
            path: "/v1/datasync/subkeys/test/channels",
            query: [:],
            headers: ["Content-Type": "application/vnd.pubnub.objects.channel+json;version=1"],
            body: #"{"data":{"entityClassVersion":1,"entityClassLevel":"Global"}}"#,
            inputs: #"{"classVersion":1,"classLevel":"Global"}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":{"id":"generated-1","createdAt":"2026-09-07T06:57:09.375184Z","updatedAt":"2026-09-07T06:57:09.375184Z","eTag":"y16jaw","expiresAt":"2026-10-08T00:00:00Z","entityClass":"Channel","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"kind":"public","name":"engineering","description":"engineering"}}}"#
        ),
        24: DataSyncVector(
            index: 24, operation: "channel.get", subscribeKey: "test", method: "GET",
            path: "/v1/datasync/subkeys/test/channels/channel-1",
            query: [:],
            headers: [:],
            body: nil,
            inputs: #"{"id":"channel-1"}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":{"id":"channel-1","createdAt":"2026-09-07T06:57:09.375184Z","updatedAt":"2026-09-07T06:57:09.375184Z","eTag":"y16jaw","expiresAt":"2026-10-08T00:00:00Z","entityClass":"Channel","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"kind":"public","name":"engineering","description":"engineering"}}}"#
        ),
        25: DataSyncVector(
            index: 25, operation: "channel.get", subscribeKey: "test", method: "GET",
            path: "/v1/datasync/subkeys/test/channels/channel-1",
            query: [:],
            headers: [:],
            body: nil,
            inputs: #"{"id":"channel-1"}"#,
            responseStatus: 404,
            responseBody: #"{"errors":[{"errorCode":"DS-0100","message":"Entity not found: channel-1"}]}"#),
        26: DataSyncVector(
            index: 26, operation: "channel.set", subscribeKey: "test", method: "PUT",
            path: "/v1/datasync/subkeys/test/channels/channel-1",
            query: [:],
            headers: ["Content-Type": "application/vnd.pubnub.objects.channel+json;version=1"],
            body:
                #"{"data":{"entityClassVersion":1,"status":"inactive","payload":{"name":"engineering","description":"engineering","kind":"public","firstName":"Bianca","department":"Sales"}}}"#,
            inputs:
                #"{"id":"channel-1","classVersion":1,"status":"inactive","payload":{"name":"engineering","description":"engineering","kind":"public","firstName":"Bianca","department":"Sales"}}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":{"id":"channel-1","createdAt":"2026-09-07T06:57:09.375184Z","updatedAt":"2026-09-07T06:57:09.375184Z","eTag":"y16jaw","expiresAt":"2026-10-08T00:00:00Z","entityClass":"Channel","entityClassVersion":1,"entityClassLevel":"Global","status":"inactive","payload":{"name":"engineering","description":"engineering","kind":"public","firstName":"Bianca","department":"Sales"}}}"#
        ),
        27: DataSyncVector(
            index: 27, operation: "channel.set", subscribeKey: "test", method: "PUT",
            path: "/v1/datasync/subkeys/test/channels/channel-1",
            query: [:],
            headers: ["Content-Type": "application/vnd.pubnub.objects.channel+json;version=1", "If-Match": "y16jaw"],
            body: #"{"data":{"entityClassVersion":1}}"#,
            inputs: #"{"id":"channel-1","classVersion":1,"ifMatchesEtag":"y16jaw"}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":{"id":"channel-1","createdAt":"2026-09-07T06:57:09.375184Z","updatedAt":"2026-09-07T06:57:09.375184Z","eTag":"y16jaw","expiresAt":"2026-10-08T00:00:00Z","entityClass":"Channel","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"kind":"public","name":"engineering","description":"engineering"}}}"#
        ),
        28: DataSyncVector(
            index: 28, operation: "channel.update", subscribeKey: "test", method: "PATCH",
            path: "/v1/datasync/subkeys/test/channels/channel-1",
            query: [:],
            headers: ["Content-Type": "application/json-patch+json"],
            body:
                #"[{"op":"add","path":"/payload/phone","value":"+15550100"},{"op":"replace","path":"/payload/email","value":"updated@acme.test"},{"op":"remove","path":"/payload/isActive"}]"#,
            inputs:
                #"{"id":"channel-1","add":{"/payload/phone":"+15550100"},"replace":{"/payload/email":"updated@acme.test"},"remove":["/payload/isActive"]}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":{"id":"channel-1","createdAt":"2026-09-07T06:57:09.375184Z","updatedAt":"2026-09-07T06:57:09.375184Z","eTag":"y16jaw","expiresAt":"2026-10-08T00:00:00Z","entityClass":"Channel","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"kind":"public","name":"engineering","description":"engineering"}}}"#
        ),
        29: DataSyncVector(
            index: 29, operation: "channel.update", subscribeKey: "test", method: "PATCH",
            path: "/v1/datasync/subkeys/test/channels/channel-1",
            query: [:],
            headers: ["Content-Type": "application/json-patch+json"],
            body:
                #"[{"op":"remove","path":"/payload/obsolete"},{"op":"move","from":"/payload/description","path":"/payload/summary"},{"op":"copy","from":"/payload/name","path":"/payload/displayName"},{"op":"test","path":"/payload/kind","value":"public"}]"#,
            inputs:
                #"{"id":"channel-1","remove":["/payload/obsolete"],"move":[{"from":"/payload/description","path":"/payload/summary"}],"copy":[{"from":"/payload/name","path":"/payload/displayName"}],"test":{"/payload/kind":"public"}}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":{"id":"channel-1","createdAt":"2026-09-07T06:57:09.375184Z","updatedAt":"2026-09-07T06:57:09.375184Z","eTag":"y16jaw","expiresAt":"2026-10-08T00:00:00Z","entityClass":"Channel","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"kind":"public","name":"engineering","description":"engineering"}}}"#
        ),
        30: DataSyncVector(
            index: 30, operation: "channel.update", subscribeKey: "test", method: "PATCH",
            path: "/v1/datasync/subkeys/test/channels/channel-1",
            query: [:],
            headers: ["Content-Type": "application/json-patch+json", "If-Match": "y16jaw"],
            body: #"[{"op":"replace","path":"/payload/firstName","value":"Amelia"}]"#,
            inputs: #"{"id":"channel-1","replace":{"/payload/firstName":"Amelia"},"ifMatchesEtag":"y16jaw"}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":{"id":"channel-1","createdAt":"2026-09-07T06:57:09.375184Z","updatedAt":"2026-09-07T06:57:09.375184Z","eTag":"y16jaw","expiresAt":"2026-10-08T00:00:00Z","entityClass":"Channel","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"kind":"public","name":"engineering","description":"engineering"}}}"#
        ),
        31: DataSyncVector(
            index: 31, operation: "channel.remove", subscribeKey: "test", method: "DELETE",
            path: "/v1/datasync/subkeys/test/channels/channel-1",
            query: [:],
            headers: [:],
            body: nil,
            inputs: #"{"id":"channel-1"}"#,
            responseStatus: 200,
            responseBody: #""#),
        32: DataSyncVector(
            index: 32, operation: "channel.remove", subscribeKey: "test", method: "DELETE",
            path: "/v1/datasync/subkeys/test/channels/channel-1",
            query: [:],
            headers: ["If-Match": "y16jaw"],
            body: nil,
            inputs: #"{"id":"channel-1","ifMatchesEtag":"y16jaw"}"#,
            responseStatus: 200,
            responseBody: #""#),
        33: DataSyncVector(
            index: 33, operation: "channel.getAll", subscribeKey: "test", method: "GET",
            path: "/v1/datasync/subkeys/test/channels",
            query: [
                "cursor": "eyJpIjoiMzUwMSIsInN2IjpbXX0", "entity_class": "Channel", "entity_class_level": "Global",
                "entity_class_version": "1", "filter": "(department == 'Engineering') AND (location == 'Pune')",
                "filter_fast": "isActive == true", "limit": "50", "sort": "-createdAt",
            ],
            headers: [:],
            body: nil,
            inputs:
                #"{"className":"Channel","classVersion":1,"classLevel":"Global","cursor":"eyJpIjoiMzUwMSIsInN2IjpbXX0","limit":50,"filterFast":"isActive == true","filter":"(department == 'Engineering') AND (location == 'Pune')","sort":"-createdAt"}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":[{"id":"channel1","createdAt":"2026-09-07T06:57:09.375184Z","updatedAt":"2026-09-07T06:57:09.375184Z","eTag":"y16jaw","expiresAt":"2026-10-08T00:00:00Z","entityClass":"Channel","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"kind":"public","name":"engineering","description":"engineering"}},{"id":"c.mem914058452","createdAt":"2026-09-07T06:57:09.375184Z","updatedAt":"2026-09-07T06:57:09.375184Z","eTag":"y16jaw","expiresAt":"2026-10-08T00:00:00Z","entityClass":"Channel","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"kind":"public","name":"engineering","description":"engineering"}}],"meta":{"next_cursor":null,"has_next":false}}"#
        ),
        34: DataSyncVector(
            index: 34, operation: "channel.getAll", subscribeKey: "test", method: "GET",
            path: "/v1/datasync/subkeys/test/channels",
            query: ["limit": "10"],
            headers: [:],
            body: nil,
            inputs: #"{"limit":10}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":[{"id":"channel1","createdAt":"2026-09-07T06:57:09.375184Z","updatedAt":"2026-09-07T06:57:09.375184Z","eTag":"y16jaw","expiresAt":"2026-10-08T00:00:00Z","entityClass":"Channel","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"kind":"public","name":"engineering","description":"engineering"}},{"id":"c.mem914058452","createdAt":"2026-09-07T06:57:09.375184Z","updatedAt":"2026-09-07T06:57:09.375184Z","eTag":"y16jaw","expiresAt":"2026-10-08T00:00:00Z","entityClass":"Channel","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"kind":"public","name":"engineering","description":"engineering"}}],"meta":{"next_cursor":"eyJpIjoiMzUwMSIsInN2IjpbXX0","has_next":true}}"#
        ),
        35: DataSyncVector(
            index: 35, operation: "channel.getAll", subscribeKey: "test", method: "GET",
            path: "/v1/datasync/subkeys/test/channels",
            query: [:],
            headers: [:],
            body: nil,
            inputs: #"{}"#,
            responseStatus: 200,
            responseBody:
                #"{"data":[{"id":"channel1","createdAt":"2026-09-07T06:57:09.375184Z","updatedAt":"2026-09-07T06:57:09.375184Z","eTag":"y16jaw","expiresAt":"2026-10-08T00:00:00Z","entityClass":"Channel","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"kind":"public","name":"engineering","description":"engineering"}},{"id":"c.mem914058452","createdAt":"2026-09-07T06:57:09.375184Z","updatedAt":"2026-09-07T06:57:09.375184Z","eTag":"y16jaw","expiresAt":"2026-10-08T00:00:00Z","entityClass":"Channel","entityClassVersion":1,"entityClassLevel":"Global","status":"active","payload":{"kind":"public","name":"engineering","description":"engineering"}}],"meta":{"next_cursor":null,"has_next":false}}"#
        ),
        36: DataSyncVector(
            index: 36, operation: "channel.getAll", subscribeKey: "mySubscribeKey", method: "GET",
            path: "/v1/datasync/subkeys/mySubscribeKey/channels",
            query: ["entity_class": "Room", "entity_class_level": "SubKey", "entity_class_version": "7"],
            headers: [:],
            body: nil,
            inputs: #"{"className":"Room","classVersion":7,"classLevel":"SubKey"}"#,
            responseStatus: 200,
            responseBody: #"{"status":200,"data":[]}"#),
        37: DataSyncVector(
            index: 37, operation: "channel.getAll", subscribeKey: "test", method: "GET",
            path: "/v1/datasync/subkeys/test/channels",
            query: [
                "cursor": "TjIw", "entity_class": "Channel", "entity_class_level": "SubKey",
                "entity_class_version": "1", "filter_fast": "status == 'active'", "limit": "10", "q1": "v1",
                "sort": "-createdAt,+id",
            ],
            headers: [:],
            body: nil,
            inputs:
                #"{"entityClass":"Channel","entityClassVersion":1,"entityClassLevel":"SubKey","cursor":"TjIw","limit":10,"filterFast":"status == 'active'","sort":["-createdAt","+id"],"queryParam":{"q1":"v1"}}"#,
            responseStatus: 200,
            responseBody: #""#),
        38: DataSyncVector(
            index: 38, operation: "channel.create", subscribeKey: "demo-sub", method: "POST",
            path: "/v1/datasync/subkeys/demo-sub/channels",
            query: [:],
            headers: ["Content-Type": "application/vnd.pubnub.objects.channel+json;version=1"],
            body: #"{"data":{"entityClassVersion":1}}"#,
            inputs: #"{"classVersion":1}"#,
            responseStatus: 200,
            responseBody: #""#),
        39: DataSyncVector(
            index: 39, operation: "channel.update", subscribeKey: "demo-sub", method: "PATCH",
            path: "/v1/datasync/subkeys/demo-sub/channels/general",
            query: [:],
            headers: ["Content-Type": "application/json-patch+json", "If-Match": "\"3\""],
            body: #"[{"op":"remove","path":"/payload/x"}]"#,
            inputs: #"{"id":"general","operations":[{"op":"remove","path":"/payload/x"}],"ifMatch":"\"3\""}"#,
            responseStatus: 200,
            responseBody: #""#),
    ]
}
