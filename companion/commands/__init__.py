"""The `companion` subcommands, one module each; every module has add_parser(subparsers) and run(args)."""
