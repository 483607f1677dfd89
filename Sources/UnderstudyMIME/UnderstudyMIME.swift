// UnderstudyMIME: placeholder until the module lands.
enum UnderstudyMIMEModule {}
