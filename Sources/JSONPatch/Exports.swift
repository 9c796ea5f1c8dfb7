// `JSONValue` appears in this module's public signatures (the documents and values it works on),
// and `JSONValueEncoder` with its two strategies is the `encoder:` parameter of
// `Patch.diffEncoded`, so a user who imports only this module can call its whole API. Named, not
// the whole of JSONCore, so the module's surface stays deliberate.

@_exported public import enum JSONCore.JSONDataStrategy
@_exported public import enum JSONCore.JSONDateStrategy
@_exported public import struct JSONCore.JSONObject
@_exported public import enum JSONCore.JSONValue
@_exported public import struct JSONCore.JSONValueEncoder
