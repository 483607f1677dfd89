// UnderstudyJSON: placeholder until the module lands.
enum UnderstudyJSONModule {}
