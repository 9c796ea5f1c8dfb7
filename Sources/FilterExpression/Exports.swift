// `JSONValue` appears in this module's public signatures (the documents and values it works on),
// so a user who imports only this module can call its whole API. Named, not the whole of JSONCore,
// so the module's surface stays deliberate.

@_exported public import struct JSONCore.JSONObject
@_exported public import enum JSONCore.JSONValue
