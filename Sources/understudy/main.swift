import UnderstudyApp
print("understudy")
