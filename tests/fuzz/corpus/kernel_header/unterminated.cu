/*@playground
title: never closed
param n: int = 1
