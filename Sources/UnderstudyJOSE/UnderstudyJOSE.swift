// UnderstudyJOSE: placeholder until the module lands.
enum UnderstudyJOSEModule {}
