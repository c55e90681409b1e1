from backend.cli.main import main

raise SystemExit(main())
