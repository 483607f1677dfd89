// UnderstudyStore: placeholder until the module lands.
enum UnderstudyStoreModule {}
