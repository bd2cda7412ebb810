// Filling host buffers as a kernel file's metadata says: zeros, constant, random(seed), ramp, image.
#pragma once

#include "core/data/data_file.h"
#include "core/data/image_io.h"
#include "core/data/host_buffer.h"
#include "core/result.h"

namespace cp {

// Fills `out` (already sized to count elements of spec.type). For Image inits pass the loaded image, for Data inits
// the read data file (its first count elements; a shorter file is refused).
Result<bool> fill_buffer(const BufferSpec& spec, HostBuffer& out, const Image* image, const DataFile* data = nullptr);

}  // namespace cp
