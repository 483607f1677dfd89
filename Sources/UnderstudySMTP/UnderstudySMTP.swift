// UnderstudySMTP: placeholder until the module lands.
enum UnderstudySMTPModule {}
