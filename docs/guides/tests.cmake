# docs/guides/tests.cmake: the guides and the README's tour as tests (label guides), included by
# conformance/CMakeLists.txt. scripts/check_guide.py runs each guide's ```console commands and
# ```pycon examples from the repository root and compares what they print with the guide; a
# guide whose output changed fails until the guide is updated. test_demo_width: every line
# scripts/demo.sh prints fits 100 columns (scripts/check-demo-width.sh). Seconds each.
set(_py /usr/bin/python3)
if(NOT EXISTS ${_py})
  set(_py python3)
endif()
set(_check ${PROJECT_SOURCE_DIR}/scripts/check_guide.py)
foreach(guide certify-rtl golden-data-python debug-rounding)
  if(guide STREQUAL golden-data-python AND NOT TARGET _softmx)
    add_test(NAME test_guide_${guide} COMMAND sh -c
             "echo 'SKIPPED: the Python module is not built in this configuration (CMake said why)'; exit 77")
  else()
    add_test(NAME test_guide_${guide}
             COMMAND ${_py} ${_check} ${PROJECT_SOURCE_DIR}/docs/guides/${guide}.md ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
  endif()
  set_tests_properties(test_guide_${guide} PROPERTIES LABELS guides TIMEOUT 300 SKIP_RETURN_CODE 77)
endforeach()
# The README's tour (its Python quick start is test_python_examples').
add_test(NAME test_guide_README
         COMMAND ${_py} ${_check} --console-only ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR})
add_test(NAME test_demo_width COMMAND ${PROJECT_SOURCE_DIR}/scripts/check-demo-width.sh ${PROJECT_BINARY_DIR})
set_tests_properties(test_guide_README test_demo_width PROPERTIES LABELS guides TIMEOUT 300)
