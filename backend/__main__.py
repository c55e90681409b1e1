from backend.cli import main

raise SystemExit(main())
