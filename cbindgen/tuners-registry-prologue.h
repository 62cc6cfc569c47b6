enum {
  BLOSC_BTUNE = 32,
};

