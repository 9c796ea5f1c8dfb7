#include "CLibraryLoader.h"

#include <dlfcn.h>
#include <stdio.h>

void *clibrary_symbol(clibrary_binder *binder, const char *name) {
    void *address = dlsym(binder->library, name);
    if (address == NULL && binder->missing == 0) {
        binder->missing = 1;
        snprintf(
            binder->error, binder->error_length, "%s has no symbol %s (%s)", binder->library_name, name,
            binder->requirement);
    }
    return address;
}

void *clibrary_optional_symbol(clibrary_binder *binder, const char *name) { return dlsym(binder->library, name); }

int clibrary_loader_init(
    clibrary_loader *loader, const char *library_name, const char *requirement,
    int (*bind)(clibrary_binder *binder), void (*unbind)(void)) {
    loader->library_name = library_name;
    loader->requirement = requirement;
    loader->bind = bind;
    loader->unbind = unbind;
    loader->loaded = 0;
    return pthread_mutex_init(&loader->lock, NULL) == 0 ? 0 : -1;
}

int clibrary_load(clibrary_loader *loader, const char *path, char *error, size_t error_length) {
    pthread_mutex_lock(&loader->lock);
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(error, error_length, "cannot load %s: %s", path, reason ? reason : "unknown error");
        pthread_mutex_unlock(&loader->lock);
        return -1;
    }
    if (loader->loaded) {
        pthread_mutex_unlock(&loader->lock);
        return 0;
    }
    clibrary_binder binder = {library, loader->library_name, loader->requirement, error, error_length, 0};
    int status = loader->bind(&binder);
    if (status == 0 && !binder.missing) {
        loader->loaded = 1;
    } else {
        status = -1;
        loader->unbind();
        dlclose(library);
    }
    pthread_mutex_unlock(&loader->lock);
    return status;
}
