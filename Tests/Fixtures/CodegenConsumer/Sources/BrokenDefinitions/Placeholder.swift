// Broken.datasync.json has an error: building this target must fail with its file and JSON pointer.
enum BrokenDefinitionsPlaceholder {}
