// UnderstudyProviders: placeholder until the module lands.
enum UnderstudyProvidersModule {}
