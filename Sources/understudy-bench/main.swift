import UnderstudyApp
print("bench")
