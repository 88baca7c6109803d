"""pongjax"""
