/*
 * version.h - the suite's one version: the program (`baechi --version`),
 * the library (`baechi_version()`, Python's `baechi.version()`) and the
 * soname all say it.  It is the public API's version: the major number
 * changes when the API breaks, the minor one when it grows.
 * include/baechi.h repeats it as BAECHI_API_MAJOR/MINOR, because an
 * installed header stands alone; api/baechi.c checks at compile time that
 * the two agree.
 *
 * Part of baechi-c; see README.md for the licence.
 */
#ifndef BAECHI_CORE_VERSION_H
#define BAECHI_CORE_VERSION_H

#define BAECHI_VERSION_MAJOR 1
#define BAECHI_VERSION_MINOR 2

#define BAECHI_VERSION_STR_(x) #x
#define BAECHI_VERSION_STR(x)  BAECHI_VERSION_STR_(x)
/* "1.2" */
#define BAECHI_VERSION                                                                             \
    BAECHI_VERSION_STR(BAECHI_VERSION_MAJOR) "." BAECHI_VERSION_STR(BAECHI_VERSION_MINOR)

#endif
