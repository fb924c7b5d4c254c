module example.com/ctxconform-example

go 1.19
