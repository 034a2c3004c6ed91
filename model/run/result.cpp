#include "model/run/result.hpp"

#include <algorithm>

namespace possim {

void Result::finish(double single_gpu_images_per_s_in) {
  images_per_s = iteration_s > 0 ? double(batch_per_gpu) * cluster.total_gpus() / iteration_s : 0;
  single_gpu_images_per_s = single_gpu_images_per_s_in;
  speedup = single_gpu_images_per_s > 0 ? images_per_s / single_gpu_images_per_s : 0;
  efficiency = cluster.total_gpus() > 0 ? speedup / cluster.total_gpus() : 0;
}

}  // namespace possim
