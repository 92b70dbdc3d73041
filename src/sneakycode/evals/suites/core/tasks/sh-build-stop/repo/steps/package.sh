#!/usr/bin/env bash
echo "packaged"
