module example.com/partnership-sandbox/go-additive

go 1.19
