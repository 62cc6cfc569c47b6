# Build and install rblosc2 as a drop-in libblosc2 (c-blosc2 3.3.5 ABI).
#
#   make install PREFIX=/some/prefix     build (cargo, release) and install (library, headers,
#                                        package files, bin/b2inspect)
#   make check-prereqs                   the tools and libraries the build needs are there (run
#                                        first by build/install; names what is missing)
#   make example PREFIX=/some/prefix     compile and run examples/hello.c against that install
#   make check-exports                   the built .so exports only the public C API
#   make uninstall PREFIX=/some/prefix
#
# Only cargo downloads: the first build on a new machine fetches the locked crates from crates.io
# into the registry cache (as `cargo fetch` does); CARGO_FLAGS=--offline forbids the network.

PREFIX     ?= /usr/local
# Both relative to PREFIX; the installed CMake and pkg-config files locate the prefix from them.
LIBDIR     ?= lib
INCLUDEDIR ?= include
BINDIR     ?= bin
DESTDIR    ?=
CARGO      ?= cargo
CARGO_FLAGS ?=
CC         ?= cc
# The headers to install; overridable only for development before include/ is generated.
HEADER_DIR ?= include

VERSION    := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
# c-blosc2 3.2/3.3 programs record NEEDED libblosc2.so.9: that SONAME is ABI, not our version.
SOVERSION  := 9
# What a C program linking libblosc2.a also needs (`cargo rustc --release --lib -- --print
# native-static-libs`, less -lc); the static consumer tests in capi-tests/ fail if this is short.
STATIC_LIBS := -lgcc_s -lutil -lrt -lpthread -lm -ldl

TARGET_DIR := target/release
SHARED     := libblosc2.so
SHARED_REAL := $(SHARED).$(VERSION)
SHARED_SONAME := $(SHARED).$(SOVERSION)
HEADERS    := blosc2.h b2nd.h
SUBHEADERS := blosc2-common.h blosc2-export.h blosc2-stdio.h codecs-registry.h \
              filters-registry.h tuners-registry.h rblosc2.h

PREFIX_ABS := $(abspath $(PREFIX))
LIB_DEST   := $(DESTDIR)$(PREFIX_ABS)/$(LIBDIR)
INC_DEST   := $(DESTDIR)$(PREFIX_ABS)/$(INCLUDEDIR)
BIN_DEST   := $(DESTDIR)$(PREFIX_ABS)/$(BINDIR)
CMAKE_DEST := $(LIB_DEST)/cmake/Blosc2
PC_DEST    := $(LIB_DEST)/pkgconfig
# From lib/cmake/Blosc2 back up to PREFIX: one ".." per path component.
CMAKE_TO_PREFIX := $(shell echo "$(LIBDIR)/cmake/Blosc2" | sed 's|[^/][^/]*|..|g')

.PHONY: all build install uninstall example check-exports check-prereqs clean

all: build

# Stops before cargo starts, with one message naming what is missing and how to install it.
check-prereqs:
	@CARGO="$(CARGO)" CC="$(CC)" scripts/check-prereqs.sh

build: check-prereqs
	$(CARGO) build --release --locked --lib $(CARGO_FLAGS)
	$(CARGO) build --release --locked --bins $(CARGO_FLAGS)

check-exports: build
	scripts/check-exports.sh $(TARGET_DIR)/$(SHARED)

install: build
	@for h in $(HEADERS) $(addprefix blosc2/,$(SUBHEADERS)); do \
	  test -f "$(HEADER_DIR)/$$h" || { echo "missing header $(HEADER_DIR)/$$h" >&2; exit 1; }; \
	done
	install -d $(LIB_DEST) $(INC_DEST)/blosc2 $(CMAKE_DEST) $(PC_DEST) $(BIN_DEST)
	install -m 755 $(TARGET_DIR)/b2inspect $(BIN_DEST)/b2inspect
	install -m 755 $(TARGET_DIR)/$(SHARED) $(LIB_DEST)/$(SHARED_REAL)
	ln -sf $(SHARED_REAL) $(LIB_DEST)/$(SHARED_SONAME)
	ln -sf $(SHARED_SONAME) $(LIB_DEST)/$(SHARED)
	install -m 644 $(TARGET_DIR)/libblosc2.a $(LIB_DEST)/libblosc2.a
	install -m 644 $(addprefix $(HEADER_DIR)/,$(HEADERS)) $(INC_DEST)/
	install -m 644 $(addprefix $(HEADER_DIR)/blosc2/,$(SUBHEADERS)) $(INC_DEST)/blosc2/
	sed -e 's|@PREFIX@|$(PREFIX_ABS)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|@STATIC_LIBS@|$(STATIC_LIBS)|g' cmake/blosc2.pc.in > $(PC_DEST)/blosc2.pc
	sed -e 's|@CMAKE_TO_PREFIX@|$(CMAKE_TO_PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    -e 's|@SHARED_REAL@|$(SHARED_REAL)|g' -e 's|@SHARED_SONAME@|$(SHARED_SONAME)|g' \
	    -e 's|@STATIC_LIBS@|$(patsubst -l%,%,$(STATIC_LIBS))|g' \
	    cmake/Blosc2Config.cmake.in > $(CMAKE_DEST)/Blosc2Config.cmake
	sed -e 's|@VERSION@|$(VERSION)|g' cmake/Blosc2ConfigVersion.cmake.in \
	    > $(CMAKE_DEST)/Blosc2ConfigVersion.cmake
	@echo "installed libblosc2 $(VERSION) into $(DESTDIR)$(PREFIX_ABS)"

uninstall:
	rm -f $(LIB_DEST)/$(SHARED_REAL) $(LIB_DEST)/$(SHARED_SONAME) $(LIB_DEST)/$(SHARED)
	rm -f $(LIB_DEST)/libblosc2.a $(PC_DEST)/blosc2.pc $(BIN_DEST)/b2inspect
	rm -f $(CMAKE_DEST)/Blosc2Config.cmake $(CMAKE_DEST)/Blosc2ConfigVersion.cmake
	-rmdir $(CMAKE_DEST)
	rm -f $(addprefix $(INC_DEST)/,$(HEADERS)) $(addprefix $(INC_DEST)/blosc2/,$(SUBHEADERS))
	-rmdir $(INC_DEST)/blosc2

# Compiles the example against the installed library exactly as a user would (pkg-config).
example:
	@mkdir -p build
	PKG_CONFIG_PATH=$(PREFIX_ABS)/$(LIBDIR)/pkgconfig $(CC) -o build/hello examples/hello.c \
	  $$(PKG_CONFIG_PATH=$(PREFIX_ABS)/$(LIBDIR)/pkgconfig pkg-config --cflags --libs blosc2) \
	  -Wl,-rpath,$(PREFIX_ABS)/$(LIBDIR)
	./build/hello

clean:
	$(CARGO) clean
	rm -rf build _install
