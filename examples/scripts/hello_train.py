# A tiny "training" script for the routes app: it prints its arguments, a few epochs, and its final metrics in the
# form the Kafka result route collects (METRIC name=value ...).
import sys

print("args:", sys.argv[1:])
loss = 1.0
for epoch in range(1, 4):
    loss = 1.0 / epoch
    print(f"epoch={epoch} loss={loss:.3f}")
print(f"METRIC loss={loss:.3f} epochs=3")
