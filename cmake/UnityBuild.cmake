# Unity builds (CMAKE_UNITY_BUILD): each target compiles its sources in
# batches of RAPPORT_UNITY_BATCH files, one translation unit a batch, so the
# heavy headers (Poco, the standard library, CppUnit) are parsed once per
# batch instead of once per file. On a 2-core machine this takes the build of
# ./.ci/test from about 39 minutes to about 7 (README, "Build and test
# time").
#
# A file that cannot share a translation unit with its neighbours (a name in
# an anonymous namespace that another file of the same target also defines,
# or a type with internal linkage used by a class with external linkage) is
# listed below and compiled on its own. Prefer giving the clashing name a
# single home when you touch such a file; then remove it from the list.
# GCC's -Wsubobject-linkage fires for a class with external linkage that
# holds a type of an anonymous namespace when the class is defined in an
# included file: in a unity batch every source is an included file, so the
# warning (meant for headers) misfires on test fixtures that keep a helper
# type of their own file. Off for unity builds only.
if(CMAKE_UNITY_BUILD)
  add_compile_options(-Wno-subobject-linkage)
endif()

# A target that this configuration does not build (the tests, with
# RAPPORT_BUILD_TESTS=OFF: the benches' Release build) has nothing to skip.
function(rapport_unity_skip TARGET)
  if(NOT TARGET ${TARGET})
    return()
  endif()
  set_source_files_properties(${ARGN} TARGET_DIRECTORY ${TARGET}
                              PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endfunction()

function(rapport_unity_skips)
  set(src ${PROJECT_SOURCE_DIR})
  rapport_unity_skip(rapport_webhooks
    ${src}/modules/webhooks/src/delivery/RetrySchedule.cpp
    ${src}/modules/webhooks/src/delivery/TargetGuard.cpp
    ${src}/modules/webhooks/src/health/EnableRoute.cpp
    ${src}/modules/webhooks/src/replay/ReplayRoute.cpp)
  rapport_unity_skip(test_unit_webhooks
    ${src}/modules/webhooks/src/delivery/RetrySchedule.cpp
    ${src}/modules/webhooks/src/delivery/TargetGuard.cpp)
  rapport_unity_skip(rapport_host_accounts ${src}/host/accounts/twofactor/SetupRoutes.cpp)
  rapport_unity_skip(rapport_host_http ${src}/host/http/RequestHead.cpp)
  rapport_unity_skip(rapport_host_ratelimit
    ${src}/host/ratelimit/RedisAttemptLog.cpp
    ${src}/host/ratelimit/RedisRateLimitStore.cpp)
  rapport_unity_skip(rapport_test_support ${src}/tests/support/HttpClient.cpp)
  rapport_unity_skip(test_e2e_activities
    ${src}/tests/e2e/activities/ActivitiesIsolationTest.cpp
    ${src}/tests/e2e/activities/ActivitiesLinksTest.cpp)
  rapport_unity_skip(test_e2e_social ${src}/tests/e2e/social/SocialGuardTest.cpp)
  rapport_unity_skip(test_e2e_webhooks
    ${src}/tests/e2e/webhooks/WebhooksGuardTest.cpp
    ${src}/tests/e2e/webhooks/WebhooksHealthTest.cpp
    ${src}/tests/e2e/webhooks/WebhooksRetryTest.cpp
    ${src}/tests/e2e/webhooks/WebhooksSignatureTest.cpp)
  rapport_unity_skip(test_unit_accounts
    ${src}/tests/unit/accounts/MemberRoutesTest.cpp
    ${src}/tests/unit/accounts/ProfileRoutesTest.cpp)
  rapport_unity_skip(test_unit_http
    ${src}/tests/unit/http/ChunkedDecoderTest.cpp
    ${src}/tests/unit/http/ConnectionTest.cpp
    ${src}/tests/unit/http/RequestReaderTest.cpp)
  rapport_unity_skip(test_unit_loader
    ${src}/tests/unit/loader/ModuleLoaderTest.cpp
    ${src}/tests/unit/loader/SdkLibraryCheckTest.cpp)
  rapport_unity_skip(test_unit_redis ${src}/tests/unit/redis/RedisAttemptLogTest.cpp)
  rapport_unity_skip(test_unit_reset ${src}/tests/unit/reset/PasswordResetTest.cpp)
  rapport_unity_skip(test_unit_storage ${src}/tests/unit/storage/StatementCacheTest.cpp)
endfunction()
