"""tcgjax"""
