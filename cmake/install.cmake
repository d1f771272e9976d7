# Installing cdclake (issue 19): `make install PREFIX=...` puts the binary in bin/, its man page
# in share/man/man1/, the Python pipeline modules in share/cdclake/python/ and the `cdclake`
# Python module in lib/python3/dist-packages/; `make package` makes a Debian package of the same
# files with CPack (the .deb lands in the build folder). Both build the cdclake and
# cdclake_python targets alone, then run `cmake --install` or `cpack`, which build nothing.

# Fixed folders rather than GNUInstallDirs': the binary looks for its Python modules at
# <its folder>/../share/cdclake/python (src/pipeline/python_pipeline.cc).
install(TARGETS cdclake RUNTIME DESTINATION bin)
install(FILES ${PROJECT_SOURCE_DIR}/docs/cdclake.1 DESTINATION share/man/man1)
# The modules `cdclake run FILE.py` imports; their unit tests stay in the source tree.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/python/ DESTINATION share/cdclake/python
        PATTERN tests EXCLUDE
        PATTERN __pycache__ EXCLUDE
        PATTERN "*.pyc" EXCLUDE
        PATTERN module EXCLUDE)  # the `cdclake` module's C++ source

# The `cdclake` Python module (python/module/) where Debian's python3 finds packaged modules:
# /usr/lib/python3/dist-packages in the package; under another prefix, PYTHONPATH names
# <prefix>/lib/python3/dist-packages (Debian's python3 looks in /usr/local/lib/python3.X only).
set(CDCLAKE_PYTHON_MODULE_DIR lib/python3/dist-packages
    CACHE STRING "Where the cdclake Python module is installed, under the prefix")
if(TARGET cdclake_python)
  install(TARGETS cdclake_python LIBRARY DESTINATION ${CDCLAKE_PYTHON_MODULE_DIR})
endif()

# The Debian package. Its dependencies are the Debian libraries the binary links
# (dpkg-shlibdeps, from dpkg-dev), plus python3 for Python pipeline files.
set(CDCLAKE_DEB_MAINTAINER "cdclake maintainers <maintainers@users.noreply.a-seed-0ba89f09.example>"
    CACHE STRING "The Maintainer field of the Debian package")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME cdclake)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "apply change-data-capture streams to Delta Lake tables")
# The long description, lines of at most 80 characters as Debian's control files want them.
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "cdclake applies database change streams (Debezium JSON, SQL Server CDC\n"
       "exports, CSV and JSON Lines files, snapshots, PostgreSQL logical replication,\n"
       "Kafka) to Delta Lake tables, exactly once and in sequence order, as SCD type 1\n"
       "or type 2, from declarative pipelines in the SQL of Databricks' AUTO CDC or in\n"
       "Python. One C++ program with no JVM and no Spark: it reads and writes Parquet\n"
       "and the Delta log itself, so its tables open in Spark, DuckDB, Trino, delta-rs.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# The binary is built with debug information (RelWithDebInfo); the package ships it stripped.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # cdclake_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CDCLAKE_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION database)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS python3)
if(TARGET cdclake_python)
  # The module is built for one python3 minor version (its file name says which).
  math(EXPR CDCLAKE_PYTHON_NEXT_MINOR "${Python3_VERSION_MINOR} + 1")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "python3 (>= ${Python3_VERSION_MAJOR}.${Python3_VERSION_MINOR}), python3 (<< ${Python3_VERSION_MAJOR}.${CDCLAKE_PYTHON_NEXT_MINOR})")
endif()
include(CPack)
