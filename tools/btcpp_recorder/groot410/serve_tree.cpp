// serve_tree XML PORT [booster:VERSION]: one tree of BehaviorTree.CPP 4.10, served by its own
// Groot2Publisher on PORT (and PORT+1), ticked on the commands read from stdin, one a line:
//   tick  -> tickExactlyOnce(); prints "status NAME" when it returns
//   halt  -> haltTree(); prints "halted"
//   set KEY TYPE VALUE -> the root blackboard's KEY set to VALUE as TYPE (bool, int, double or
//            string: the rest of the line); prints "set"
//   quit  -> ends (the publisher is destroyed first)
// With "booster:main" (or booster:2026), the factory also holds stubs of that Booster version's
// node types (booster_nodes.hpp, generated from its nodes.json by gen_booster_nodes.py) before the
// tree is created.
// It prints "ready" once the publisher is bound. record.py drives it.
#include <behaviortree_cpp/bt_factory.h>
#include <behaviortree_cpp/loggers/groot2_publisher.h>

#include <iostream>
#include <sstream>
#include <string>

#include "booster_nodes.hpp"

int main(int argc, char** argv)
{
  const std::string library = argc == 4 ? argv[3] : "";
  BT::BehaviorTreeFactory factory;
  if(argc < 3 || argc > 4 ||
     (argc == 4 && (library.rfind("booster:", 0) != 0 || !registerBoosterNodes(factory, library.substr(8)))))
  {
    std::cerr << "usage: serve_tree XML PORT [booster:VERSION]" << std::endl;
    return 2;
  }
  auto tree = factory.createTreeFromFile(argv[1]);
  const unsigned port = static_cast<unsigned>(std::stoul(argv[2]));
  {
    BT::Groot2Publisher publisher(tree, port);
    std::cout << "ready" << std::endl;
    std::string line;
    while(std::getline(std::cin, line))
    {
      if(line == "tick")
      {
        const auto status = tree.tickExactlyOnce();
        std::cout << "status " << BT::toStr(status) << std::endl;
      }
      else if(line == "halt")
      {
        tree.haltTree();
        std::cout << "halted" << std::endl;
      }
      else if(line.rfind("set ", 0) == 0)
      {
        std::istringstream words(line.substr(4));
        std::string key, type, value;
        words >> key >> type;
        std::getline(words >> std::ws, value);
        auto blackboard = tree.rootBlackboard();
        if(type == "bool")
        {
          blackboard->set<bool>(key, value == "true");
        }
        else if(type == "int")
        {
          blackboard->set<int>(key, std::stoi(value));
        }
        else if(type == "double")
        {
          blackboard->set<double>(key, std::stod(value));
        }
        else
        {
          blackboard->set<std::string>(key, value);
        }
        std::cout << "set" << std::endl;
      }
      else if(line == "quit")
      {
        break;
      }
    }
  }
  return 0;
}
