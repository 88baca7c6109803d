"""paritygym"""
