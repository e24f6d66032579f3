# A tiny "training" script for the routes app's inbox: it prints its arguments and a few metric lines.
import sys

print("args:", sys.argv[1:])
for epoch in range(1, 4):
    print(f"epoch={epoch} loss={1.0 / epoch:.3f}")
