package all

import _ "arew/tasks/flodial"
