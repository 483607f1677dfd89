// UnderstudyApp: placeholder until the module lands.
enum UnderstudyAppModule {}
