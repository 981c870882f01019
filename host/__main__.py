from waymark.host.cli import main

raise SystemExit(main())
