"""The two editions, English and 简体中文: twins, the build's own sentences, Chinese checks."""
