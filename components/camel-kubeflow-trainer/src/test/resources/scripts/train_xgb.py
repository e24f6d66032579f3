import xgboost
print("training with", xgboost.__version__)
