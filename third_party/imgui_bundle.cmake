# Fetches the GUI libraries at configure time from one pinned, hash-checked registry package: the source
# distribution of imgui-bundle on PyPI, which carries Dear ImGui (docking), ImPlot, ImGuiColorTextEdit and
# ImFileDialog. The archive is cached outside the repository; only the files we build are extracted, into
# third_party/imgui_bundle-<version>/ (git-ignored). Nothing here is committed.
#
#   CP_THIRD_PARTY_CACHE     where the archive is kept (default: $CUDA_PLAYGROUND_THIRD_PARTY_CACHE, else
#                            $XDG_CACHE_HOME/cuda-playground/third_party, else ~/.cache/cuda-playground/third_party)
#   Offline: put imgui_bundle-<version>.tar.gz in that folder; it is checked against the same hash.

set(CP_IMGUI_BUNDLE_VERSION 1.93.0)
set(CP_IMGUI_BUNDLE_SHA256 10ad1dab8258a6787b4f07bb926b08d0efc648a7906242568c8dd778c5e719bf)
set(CP_IMGUI_BUNDLE_URL
    "https://files.pythonhosted.org/packages/64/78/b5e7bf047f6202711d2bd9f9ffde31c28ca47a6c1cb0d9a744763ac6e749/imgui_bundle-${CP_IMGUI_BUNDLE_VERSION}.tar.gz")

include(${CMAKE_CURRENT_LIST_DIR}/cache_dir.cmake)

set(_cp_name imgui_bundle-${CP_IMGUI_BUNDLE_VERSION})
set(CP_IMGUI_BUNDLE_DIR ${CMAKE_CURRENT_SOURCE_DIR}/${_cp_name})
set(_cp_stamp ${CP_IMGUI_BUNDLE_DIR}/.extracted)
set(_cp_stamp_text "${CP_IMGUI_BUNDLE_URL} ${CP_IMGUI_BUNDLE_SHA256}")

# The files we build, as paths inside the archive (wildcards allowed).
set(_cp_wanted
  ${_cp_name}/LICENSE
  ${_cp_name}/external/imgui/imgui/LICENSE.txt
  ${_cp_name}/external/imgui/imgui/imconfig.h
  ${_cp_name}/external/imgui/imgui/imgui.h
  ${_cp_name}/external/imgui/imgui/imgui.cpp
  ${_cp_name}/external/imgui/imgui/imgui_internal.h
  ${_cp_name}/external/imgui/imgui/imgui_draw.cpp
  ${_cp_name}/external/imgui/imgui/imgui_tables.cpp
  ${_cp_name}/external/imgui/imgui/imgui_widgets.cpp
  ${_cp_name}/external/imgui/imgui/imgui_stacklayout*
  ${_cp_name}/external/imgui/imgui/imstb_*.h
  ${_cp_name}/external/imgui/imgui/backends/imgui_impl_glfw.*
  ${_cp_name}/external/imgui/imgui/backends/imgui_impl_opengl3*
  ${_cp_name}/external/imgui/imgui/misc/cpp/imgui_stdlib.*
  ${_cp_name}/external/implot/implot/LICENSE
  ${_cp_name}/external/implot/implot/implot.h
  ${_cp_name}/external/implot/implot/implot.cpp
  ${_cp_name}/external/implot/implot/implot_internal.h
  ${_cp_name}/external/implot/implot/implot_items.cpp
  ${_cp_name}/external/ImGuiColorTextEdit/ImGuiColorTextEdit/LICENSE
  ${_cp_name}/external/ImGuiColorTextEdit/ImGuiColorTextEdit/TextEditor.h
  ${_cp_name}/external/ImGuiColorTextEdit/ImGuiColorTextEdit/TextEditor.cpp
  ${_cp_name}/external/ImFileDialog/ImFileDialog/LICENSE
  ${_cp_name}/external/ImFileDialog/ImFileDialog/ImFileDialog.h
  ${_cp_name}/external/ImFileDialog/ImFileDialog/ImFileDialog.cpp)

set(_cp_have "")
if(EXISTS ${_cp_stamp})
  file(READ ${_cp_stamp} _cp_have)
endif()
if(NOT _cp_have STREQUAL _cp_stamp_text)
  set(_cp_archive ${CP_THIRD_PARTY_CACHE}/${_cp_name}.tar.gz)
  set(_cp_hash_ok FALSE)
  if(EXISTS ${_cp_archive})
    file(SHA256 ${_cp_archive} _cp_hash)
    if(_cp_hash STREQUAL CP_IMGUI_BUNDLE_SHA256)
      set(_cp_hash_ok TRUE)
    else()
      message(STATUS "third_party: ${_cp_archive} has the wrong SHA-256 (${_cp_hash}); downloading it again")
    endif()
  endif()
  if(NOT _cp_hash_ok)
    message(STATUS "third_party: downloading imgui-bundle ${CP_IMGUI_BUNDLE_VERSION} sources (54 MB, once) into ${CP_THIRD_PARTY_CACHE}")
    file(MAKE_DIRECTORY ${CP_THIRD_PARTY_CACHE})
    file(DOWNLOAD ${CP_IMGUI_BUNDLE_URL} ${_cp_archive}.part
         EXPECTED_HASH SHA256=${CP_IMGUI_BUNDLE_SHA256} STATUS _cp_status TLS_VERIFY ON)
    list(GET _cp_status 0 _cp_code)
    if(NOT _cp_code EQUAL 0)
      file(REMOVE ${_cp_archive}.part)
      list(GET _cp_status 1 _cp_why)
      message(FATAL_ERROR "third_party: could not download ${CP_IMGUI_BUNDLE_URL}: ${_cp_why}\n"
                          "  hint: check the network, or copy ${_cp_name}.tar.gz (SHA-256 ${CP_IMGUI_BUNDLE_SHA256}) "
                          "into ${CP_THIRD_PARTY_CACHE} (or set CUDA_PLAYGROUND_THIRD_PARTY_CACHE to its folder)")
    endif()
    file(RENAME ${_cp_archive}.part ${_cp_archive})
  endif()
  message(STATUS "third_party: extracting Dear ImGui, ImPlot, ImGuiColorTextEdit and ImFileDialog into ${CP_IMGUI_BUNDLE_DIR}")
  file(REMOVE_RECURSE ${CP_IMGUI_BUNDLE_DIR})
  file(ARCHIVE_EXTRACT INPUT ${_cp_archive} DESTINATION ${CMAKE_CURRENT_SOURCE_DIR} PATTERNS ${_cp_wanted})
  foreach(_cp_file imgui/imgui/imgui.cpp implot/implot/implot.cpp ImGuiColorTextEdit/ImGuiColorTextEdit/TextEditor.cpp
                   ImFileDialog/ImFileDialog/ImFileDialog.cpp)
    if(NOT EXISTS ${CP_IMGUI_BUNDLE_DIR}/external/${_cp_file})
      message(FATAL_ERROR "third_party: ${_cp_file} is missing from ${_cp_archive}")
    endif()
  endforeach()
  file(WRITE ${_cp_stamp} "${_cp_stamp_text}")
endif()
