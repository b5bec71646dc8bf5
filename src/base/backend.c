#include "backend.h"

const char *vnpu_device_name(struct vnpu_device *dev) {
    return dev->iface->get_name(dev);
}

bool vnpu_device_supports_op(struct vnpu_device *dev, const struct vnpu_tensor *op) {
    return dev->iface->supports_op(dev, op);
}

struct vnpu_buffer_type *vnpu_device_buffer_type(struct vnpu_device *dev) {
    return dev->iface->get_buffer_type(dev);
}

struct vnpu_buffer_type *vnpu_device_weight_buffer_type(struct vnpu_device *dev, const struct vnpu_tensor *weight) {
    if (dev->iface->get_weight_buffer_type) {
        return dev->iface->get_weight_buffer_type(dev, weight);
    }
    return dev->iface->get_buffer_type(dev);
}

void vnpu_device_free(struct vnpu_device *dev) {
    if (dev) {
        dev->iface->free(dev);
    }
}
