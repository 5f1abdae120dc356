# The list of common passwords (CommonPasswords.h), generated at build time
# from Debian's python3-zxcvbn into the build folder and compiled into
# rapport_host_accounts. Nothing of the list is committed.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(RAPPORT_ZXCVBN_FREQUENCY_LISTS "/usr/lib/python3/dist-packages/zxcvbn/frequency_lists.py"
  CACHE FILEPATH "zxcvbn's frequency_lists.py (Debian package python3-zxcvbn)")
if(NOT EXISTS "${RAPPORT_ZXCVBN_FREQUENCY_LISTS}")
  message(FATAL_ERROR "${RAPPORT_ZXCVBN_FREQUENCY_LISTS} not found: install python3-zxcvbn "
    "(.ci/lib/deps.sh build) or set RAPPORT_ZXCVBN_FREQUENCY_LISTS")
endif()
set(common_passwords_script ${CMAKE_CURRENT_LIST_DIR}/generate_common_passwords.py)
set(common_passwords_cpp ${CMAKE_CURRENT_BINARY_DIR}/common_passwords.gen.cpp)
add_custom_command(
  OUTPUT ${common_passwords_cpp}
  COMMAND Python3::Interpreter ${common_passwords_script} ${RAPPORT_ZXCVBN_FREQUENCY_LISTS}
          ${common_passwords_cpp}
  DEPENDS ${common_passwords_script} ${RAPPORT_ZXCVBN_FREQUENCY_LISTS}
  COMMENT "Generating the list of common passwords from zxcvbn"
  VERBATIM)
target_sources(rapport_host_accounts PRIVATE ${common_passwords_cpp})
