// UnderstudyInbox: placeholder until the module lands.
enum UnderstudyInboxModule {}
