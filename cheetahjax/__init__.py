"""cheetahjax"""
