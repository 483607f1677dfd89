// UnderstudyExtract: placeholder until the module lands.
enum UnderstudyExtractModule {}
