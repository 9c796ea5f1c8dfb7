// `PubNubError` lived in this module before the base module PubNubBase took it (PubNubBase is
// not a product). Re-exported by name so code that imports only DataSyncModels and names the
// error, or reads `error.pubNubError`, keeps compiling; the decoders here throw it.

@_exported public import struct PubNubBase.PubNubError
