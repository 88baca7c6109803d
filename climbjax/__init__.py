"""climbjax"""
