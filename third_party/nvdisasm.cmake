# Fetches nvdisasm (the SASS disassembler the Code panel and `compile --sass` use) at configure time when the
# CUDA toolkit has none: NVIDIA ships it as a pinned registry package, the wheel nvidia-cuda-nvdisasm on PyPI.
# The wheel is cached outside the repository (the same cache as imgui_bundle.cmake) and only the binary is
# extracted, into third_party/nvdisasm-<version>/ (git-ignored). Nothing here is committed.
#
# Sets CP_NVDISASM: the nvdisasm to use (the toolkit's, else the fetched one), or empty when neither could be
# had (offline without the wheel): the app then says SASS needs nvdisasm and how to get it, and PTX still works.
#   Offline: put the wheel (its file name below) in CP_THIRD_PARTY_CACHE; it is checked against the same hash.

include(${CMAKE_CURRENT_LIST_DIR}/cache_dir.cmake)
set(CP_NVDISASM_VERSION 13.2.51)
set(CP_NVDISASM_SHA256 5a7acf77c55d6d2911ed6155d4d5bc156ffadf9df7a68a89b0c1155f4b13688c)
set(_cp_nvd_wheel nvidia_cuda_nvdisasm-${CP_NVDISASM_VERSION}-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl)
set(CP_NVDISASM_URL
    "https://files.pythonhosted.org/packages/ad/34/f19b4dd50158e7dc18c55654f844d87bf188d2a2b230374620e6b126a6c9/${_cp_nvd_wheel}")

set(CP_NVDISASM "" CACHE STRING "nvdisasm for SASS (empty: the toolkit's, else the pinned wheel's)")
set(_cp_nvd_toolkit "")
if(CUDAToolkit_BIN_DIR AND EXISTS "${CUDAToolkit_BIN_DIR}/nvdisasm")
  set(_cp_nvd_toolkit "${CUDAToolkit_BIN_DIR}/nvdisasm")
endif()

if(NOT CP_NVDISASM STREQUAL "")
  # chosen by the user
elseif(NOT _cp_nvd_toolkit STREQUAL "")
  set(CP_NVDISASM "${_cp_nvd_toolkit}" CACHE STRING "" FORCE)
elseif(NOT CMAKE_HOST_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  message(STATUS "third_party: no nvdisasm in the CUDA toolkit and no pinned wheel for ${CMAKE_HOST_SYSTEM_PROCESSOR}: "
                 "the Code panel shows PTX only")
else()
  set(_cp_nvd_dir ${CMAKE_CURRENT_SOURCE_DIR}/nvdisasm-${CP_NVDISASM_VERSION})
  set(_cp_nvd_bin ${_cp_nvd_dir}/nvidia/cu13/bin/nvdisasm)
  if(NOT EXISTS ${_cp_nvd_bin})
    set(_cp_nvd_archive ${CP_THIRD_PARTY_CACHE}/${_cp_nvd_wheel})
    set(_cp_nvd_ok FALSE)
    if(EXISTS ${_cp_nvd_archive})
      file(SHA256 ${_cp_nvd_archive} _cp_nvd_hash)
      if(_cp_nvd_hash STREQUAL CP_NVDISASM_SHA256)
        set(_cp_nvd_ok TRUE)
      endif()
    endif()
    if(NOT _cp_nvd_ok)
      message(STATUS "third_party: downloading nvdisasm ${CP_NVDISASM_VERSION} (5 MB, once) into ${CP_THIRD_PARTY_CACHE}")
      file(MAKE_DIRECTORY ${CP_THIRD_PARTY_CACHE})
      file(DOWNLOAD ${CP_NVDISASM_URL} ${_cp_nvd_archive}.part
           EXPECTED_HASH SHA256=${CP_NVDISASM_SHA256} STATUS _cp_nvd_status TLS_VERIFY ON)
      list(GET _cp_nvd_status 0 _cp_nvd_code)
      if(_cp_nvd_code EQUAL 0)
        file(RENAME ${_cp_nvd_archive}.part ${_cp_nvd_archive})
        set(_cp_nvd_ok TRUE)
      else()
        file(REMOVE ${_cp_nvd_archive}.part)
        list(GET _cp_nvd_status 1 _cp_nvd_why)
        message(WARNING "third_party: could not download ${CP_NVDISASM_URL}: ${_cp_nvd_why}; the Code panel and "
                        "`compile --sass` will say SASS needs nvdisasm (copy ${_cp_nvd_wheel} into "
                        "${CP_THIRD_PARTY_CACHE} and configure again)")
      endif()
    endif()
    if(_cp_nvd_ok)
      file(REMOVE_RECURSE ${_cp_nvd_dir})
      file(ARCHIVE_EXTRACT INPUT ${_cp_nvd_archive} DESTINATION ${_cp_nvd_dir} PATTERNS nvidia/cu13/bin/nvdisasm
           "nvidia_cuda_nvdisasm-${CP_NVDISASM_VERSION}.dist-info/licenses/License.txt")
      if(EXISTS ${_cp_nvd_bin})
        file(CHMOD ${_cp_nvd_bin} PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
             WORLD_READ WORLD_EXECUTE)
      endif()
    endif()
  endif()
  if(EXISTS ${_cp_nvd_bin})
    set(CP_NVDISASM "${_cp_nvd_bin}" CACHE STRING "" FORCE)
  endif()
endif()
message(STATUS "third_party: nvdisasm: ${CP_NVDISASM}")
