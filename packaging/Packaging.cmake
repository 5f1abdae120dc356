# Debian packages, built by CPack from this build tree (docs/package.md):
#   cpack -G DEB            (or the "package" target)
# gives two packages:
#   rapport_<version>_amd64.deb      the server: /usr/sbin/rapportd, the
#       first-party modules in /usr/lib/rapport/modules, the SDK library they
#       and rapportd need at run time in /usr/lib/rapport (rapportd finds it
#       through its RUNPATH $ORIGIN/../lib/rapport), the conffile
#       /etc/rapport/rapport.properties, the systemd unit rapport.service and
#       the maintainer scripts of packaging/debian/.
#   rapport-sdk_<version>_amd64.deb  what sdk/CMakeLists.txt installs as the
#       component "sdk" (headers, librapport_sdk and the harness library, the
#       CMake package RapportSdk, the module template); depends on rapport of
#       the same version.
# The component "modules" of rapport_add_module is not packaged: test fixture
# modules belong to it too. The server's first-party modules are installed
# here, by name, into the component "server".
#
# The server's files live at fixed places (the unit and the conffile name
# them), whatever the install prefix of the build: only the SDK follows
# GNUInstallDirs. Nothing here changes the build layout (build/rapportd with
# build/modules): RUNPATHs differ only once installed.

set(RAPPORT_PACKAGE_SOURCE_DIR ${CMAKE_CURRENT_LIST_DIR}/debian)
set(RAPPORT_PACKAGE_PRIVATE_LIBDIR lib/rapport)  # under /usr
set(RAPPORT_PACKAGE_MODULES_DIR ${RAPPORT_PACKAGE_PRIVATE_LIBDIR}/modules)

# --- the server package (component "server") ---------------------------------
if(TARGET rapportd)
  set_target_properties(rapportd PROPERTIES INSTALL_RPATH "$ORIGIN/../${RAPPORT_PACKAGE_PRIVATE_LIBDIR}")
  install(TARGETS rapportd RUNTIME DESTINATION sbin COMPONENT server EXCLUDE_FROM_ALL)
endif()
# The SDK library a second time, privately: the server must not depend on the
# SDK package (headers, CMake files) to run. A module built against
# rapport-sdk names the same soname, which rapportd has already loaded.
install(TARGETS rapport_sdk LIBRARY DESTINATION ${RAPPORT_PACKAGE_PRIVATE_LIBDIR}
        COMPONENT server NAMELINK_SKIP EXCLUDE_FROM_ALL)
foreach(module IN LISTS RAPPORT_FIRST_PARTY_MODULES)
  # $ORIGIN/..: `ldd` on an installed module resolves the SDK library too.
  set_target_properties(rapport_${module} PROPERTIES INSTALL_RPATH "$ORIGIN/..")
  install(TARGETS rapport_${module} LIBRARY DESTINATION ${RAPPORT_PACKAGE_MODULES_DIR}
          COMPONENT server EXCLUDE_FROM_ALL)
endforeach()
# Absolute destinations: only a package puts files there (EXCLUDE_FROM_ALL
# keeps them out of a plain `cmake --install`).
install(FILES ${RAPPORT_PACKAGE_SOURCE_DIR}/rapport.properties DESTINATION /etc/rapport
        COMPONENT server EXCLUDE_FROM_ALL)
install(FILES ${RAPPORT_PACKAGE_SOURCE_DIR}/rapport.service DESTINATION /lib/systemd/system
        COMPONENT server EXCLUDE_FROM_ALL)

# Debian's doc files of both packages: the copyright file and the changelog,
# compressed as Debian policy wants (changelog.gz; gzip made at configure
# time by CMake itself).
set(RAPPORT_PACKAGE_CHANGELOG ${CMAKE_BINARY_DIR}/packaging/changelog.gz)
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/packaging)
file(ARCHIVE_CREATE OUTPUT ${RAPPORT_PACKAGE_CHANGELOG} PATHS ${RAPPORT_PACKAGE_SOURCE_DIR}/changelog
     FORMAT raw COMPRESSION GZip)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${RAPPORT_PACKAGE_SOURCE_DIR}/changelog)
foreach(component IN ITEMS server sdk)
  set(doc_dir share/doc/rapport)
  if(component STREQUAL "sdk")
    set(doc_dir share/doc/rapport-sdk)
  endif()
  install(FILES ${RAPPORT_PACKAGE_SOURCE_DIR}/copyright ${RAPPORT_PACKAGE_CHANGELOG}
          DESTINATION ${doc_dir} COMPONENT ${component} EXCLUDE_FROM_ALL)
endforeach()

# --- CPack -------------------------------------------------------------------
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME rapport)
set(CPACK_PACKAGE_VENDOR "Rapport")
set(CPACK_PACKAGE_CONTACT "Rapport maintainers <maintainers@rapport.invalid>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_COMPONENTS_ALL server sdk)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # <name>_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Debian ships stripped binaries (RelWithDebInfo's are ten times larger).
set(CPACK_STRIP_FILES ON)
# Depends computed by dpkg-shlibdeps from the binaries (Debian 12's names).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(CPACK_DEBIAN_SERVER_PACKAGE_NAME rapport)
# First line: the synopsis (CPack adds none while CPACK_PACKAGE_DESCRIPTION_SUMMARY
# keeps its default).
string(REPLACE ";" ", " packaged_modules "${RAPPORT_FIRST_PARTY_MODULES}")
set(CPACK_DEBIAN_SERVER_DESCRIPTION "Rapport, a multi-tenant CRM HTTP API server
rapportd, its first-party modules
(${packaged_modules}),
the systemd service rapport.service and its configuration in /etc/rapport.")
# adduser: postinst creates the system user rapport (shlibdeps adds the rest).
set(CPACK_DEBIAN_SERVER_PACKAGE_DEPENDS "adduser")
set(CPACK_DEBIAN_SERVER_PACKAGE_CONTROL_EXTRA
    ${RAPPORT_PACKAGE_SOURCE_DIR}/conffiles
    ${RAPPORT_PACKAGE_SOURCE_DIR}/postinst
    ${RAPPORT_PACKAGE_SOURCE_DIR}/prerm
    ${RAPPORT_PACKAGE_SOURCE_DIR}/postrm)

set(CPACK_DEBIAN_SDK_PACKAGE_NAME rapport-sdk)
set(CPACK_DEBIAN_SDK_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_SDK_DESCRIPTION "SDK to build modules for the Rapport server
Headers, the SDK and test-harness libraries, the CMake package RapportSdk
(find_package(RapportSdk)) and a module template in
/usr/share/rapport/sdk-template.")
# "rapport (= <version>)": a module runs in the server it was built for.
set(CPACK_COMPONENT_SDK_DEPENDS server)

include(CPack)
