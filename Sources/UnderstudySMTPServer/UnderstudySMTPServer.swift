// UnderstudySMTPServer: placeholder until the module lands.
enum UnderstudySMTPServerModule {}
