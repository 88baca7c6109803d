"""pokejax"""
