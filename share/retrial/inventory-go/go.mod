module retrial.invalid/inventory

go 1.19
