// UnderstudyHTTP: placeholder until the module lands.
enum UnderstudyHTTPModule {}
