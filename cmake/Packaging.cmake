# Desktop integration and the Debian package (`cpack -G DEB` in the build directory).
# The .desktop entry, the MIME type for *.fxmem.json and the icon install where file managers and
# menus look (XDG dirs under the prefix); dpkg's triggers of shared-mime-info and
# desktop-file-utils refresh their caches, so the package needs no maintainer scripts.
include(GNUInstallDirs)
if(TARGET fxmem)
  install(FILES ${CMAKE_SOURCE_DIR}/resources/desktop/io.github.fxmem.fxmem.desktop
          DESTINATION ${CMAKE_INSTALL_DATADIR}/applications)
  install(FILES ${CMAKE_SOURCE_DIR}/resources/desktop/fxmem-mime.xml
          DESTINATION ${CMAKE_INSTALL_DATADIR}/mime/packages RENAME fxmem.xml)
  install(FILES ${CMAKE_SOURCE_DIR}/resources/icons/fxmem.svg
          DESTINATION ${CMAKE_INSTALL_DATADIR}/icons/hicolor/scalable/apps)
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME fxmem)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Where the GPU memory of a PyTorch compiled training step goes")
set(CPACK_PACKAGE_CONTACT "fxmem developers <fxmem@users.noreply.github.com>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# Depends from the binaries' own libraries (dpkg-shlibdeps): Qt 6, QCustomPlot, libstdc++.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "shared-mime-info, desktop-file-utils")
set(CPACK_STRIP_FILES ON)
include(CPack)
