// UnderstudyHTTPServer: placeholder until the module lands.
enum UnderstudyHTTPServerModule {}
