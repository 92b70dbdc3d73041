#!/usr/bin/env bash
echo "compiled"
