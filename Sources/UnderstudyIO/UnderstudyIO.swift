// UnderstudyIO: placeholder until the module lands.
enum UnderstudyIOModule {}
