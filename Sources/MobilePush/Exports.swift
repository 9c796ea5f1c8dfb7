// What `import MobilePush` brings along: the client (PubNubCore, whole: `PubNub`, its
// configuration, `PubNubError`). Named once, so a type added to other modules later does not
// silently join this module's surface.

@_exported public import PubNubCore
